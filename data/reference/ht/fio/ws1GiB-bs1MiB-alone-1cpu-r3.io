rchar: 36433931176
wchar: 13654
syscr: 34966
syscw: 5
read_bytes: 270336
write_bytes: 8192
cancelled_write_bytes: 0
