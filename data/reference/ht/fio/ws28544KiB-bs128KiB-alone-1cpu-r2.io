rchar: 30539230185
wchar: 13659
syscr: 233215
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
