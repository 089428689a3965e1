rchar: 46012935090
wchar: 13659
syscr: 351270
syscw: 5
read_bytes: 45056
write_bytes: 45056
cancelled_write_bytes: 0
