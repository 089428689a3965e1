rchar: 22291085773
wchar: 5981
syscr: 5442333
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
