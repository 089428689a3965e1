rchar: 38885501863
wchar: 13654
syscr: 37304
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
