rchar: 31145527761
wchar: 5975
syscr: 237811
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
