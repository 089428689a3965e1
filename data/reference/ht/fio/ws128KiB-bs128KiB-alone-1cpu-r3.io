rchar: 96963505106
wchar: 13664
syscr: 739991
syscw: 5
read_bytes: 36864
write_bytes: 8192
cancelled_write_bytes: 0
