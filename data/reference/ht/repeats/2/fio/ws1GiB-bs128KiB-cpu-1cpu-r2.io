rchar: 14953286089
wchar: 5977
syscr: 114272
syscw: 3
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
