rchar: 50438187982
wchar: 13659
syscr: 385031
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
