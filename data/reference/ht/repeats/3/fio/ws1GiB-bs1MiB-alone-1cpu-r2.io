rchar: 9753963461
wchar: 13654
syscr: 9521
syscw: 5
read_bytes: 4096
write_bytes: 28672
cancelled_write_bytes: 0
