rchar: 45410790495
wchar: 13658
syscr: 346696
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
