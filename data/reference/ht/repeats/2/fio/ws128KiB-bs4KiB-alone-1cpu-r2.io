rchar: 21217618890
wchar: 13662
syscr: 5180275
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
