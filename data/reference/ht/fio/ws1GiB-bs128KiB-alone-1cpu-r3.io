rchar: 46827416526
wchar: 13658
syscr: 357483
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
