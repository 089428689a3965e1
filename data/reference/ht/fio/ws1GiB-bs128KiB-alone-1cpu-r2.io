rchar: 48849202169
wchar: 13659
syscr: 372909
syscw: 5
read_bytes: 528384
write_bytes: 8192
cancelled_write_bytes: 0
