rchar: 77528673240
wchar: 13667
syscr: 591715
syscw: 5
read_bytes: 4096
write_bytes: 8192
cancelled_write_bytes: 0
