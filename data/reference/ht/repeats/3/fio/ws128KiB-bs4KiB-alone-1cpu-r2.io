rchar: 31994223053
wchar: 5982
syscr: 7811263
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
