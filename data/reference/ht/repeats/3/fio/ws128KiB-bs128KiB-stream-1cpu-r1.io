rchar: 57960278998
wchar: 13660
syscr: 442420
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
