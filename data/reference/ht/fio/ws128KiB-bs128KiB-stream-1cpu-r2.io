rchar: 89408384102
wchar: 13668
syscr: 682369
syscw: 5
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
