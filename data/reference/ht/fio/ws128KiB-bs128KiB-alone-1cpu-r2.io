rchar: 94075333730
wchar: 13664
syscr: 717977
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
