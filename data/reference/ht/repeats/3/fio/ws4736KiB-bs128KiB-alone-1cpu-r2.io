rchar: 90493791231
wchar: 13666
syscr: 690633
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
