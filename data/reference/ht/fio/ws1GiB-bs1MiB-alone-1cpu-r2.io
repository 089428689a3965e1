rchar: 12407909320
wchar: 13654
syscr: 12052
syscw: 5
read_bytes: 131072
write_bytes: 28672
cancelled_write_bytes: 0
