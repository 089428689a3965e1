rchar: 98861558718
wchar: 13665
syscr: 754472
syscw: 5
read_bytes: 20480
write_bytes: 8192
cancelled_write_bytes: 0
