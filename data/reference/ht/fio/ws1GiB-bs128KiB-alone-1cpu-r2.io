rchar: 47993826252
wchar: 13657
syscr: 366380
syscw: 5
read_bytes: 20480
write_bytes: 8192
cancelled_write_bytes: 0
