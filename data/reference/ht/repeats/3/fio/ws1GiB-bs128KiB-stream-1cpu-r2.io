rchar: 43514440695
wchar: 13659
syscr: 332209
syscw: 5
read_bytes: 114688
write_bytes: 24576
cancelled_write_bytes: 0
