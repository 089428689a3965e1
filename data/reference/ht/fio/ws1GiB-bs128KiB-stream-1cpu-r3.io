rchar: 47206476789
wchar: 13659
syscr: 360377
syscw: 5
read_bytes: 53248
write_bytes: 32768
cancelled_write_bytes: 0
