rchar: 26705095669
wchar: 13666
syscr: 1630163
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
