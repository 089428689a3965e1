rchar: 12758133703
wchar: 13652
syscr: 12386
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
