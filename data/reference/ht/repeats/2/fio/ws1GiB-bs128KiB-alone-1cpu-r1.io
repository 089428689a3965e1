rchar: 55582370765
wchar: 13663
syscr: 424278
syscw: 5
read_bytes: 1380352
write_bytes: 8192
cancelled_write_bytes: 0
