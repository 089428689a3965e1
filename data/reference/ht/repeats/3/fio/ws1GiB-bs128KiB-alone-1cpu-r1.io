rchar: 49382140915
wchar: 13659
syscr: 376976
syscw: 5
read_bytes: 745472
write_bytes: 8192
cancelled_write_bytes: 0
