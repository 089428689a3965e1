rchar: 113553026039
wchar: 13669
syscr: 866561
syscw: 5
read_bytes: 114688
write_bytes: 16384
cancelled_write_bytes: 0
