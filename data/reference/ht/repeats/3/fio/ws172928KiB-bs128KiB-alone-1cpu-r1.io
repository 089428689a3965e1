rchar: 41528961990
wchar: 13666
syscr: 317060
syscw: 5
read_bytes: 32768
write_bytes: 28672
cancelled_write_bytes: 0
