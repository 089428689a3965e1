rchar: 40927472631
wchar: 13658
syscr: 312472
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
