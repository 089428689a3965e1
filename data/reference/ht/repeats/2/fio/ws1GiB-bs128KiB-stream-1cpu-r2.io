rchar: 28765915601
wchar: 5973
syscr: 219656
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
