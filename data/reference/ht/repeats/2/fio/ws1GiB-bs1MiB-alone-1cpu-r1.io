rchar: 12950023109
wchar: 13652
syscr: 12569
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
