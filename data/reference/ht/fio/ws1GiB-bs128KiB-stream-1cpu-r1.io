rchar: 48033278939
wchar: 13659
syscr: 366684
syscw: 5
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
