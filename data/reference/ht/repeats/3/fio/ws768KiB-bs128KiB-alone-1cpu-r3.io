rchar: 113900497844
wchar: 13667
syscr: 869211
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
