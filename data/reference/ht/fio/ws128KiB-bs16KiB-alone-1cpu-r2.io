rchar: 33758365973
wchar: 5987
syscr: 2060624
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
