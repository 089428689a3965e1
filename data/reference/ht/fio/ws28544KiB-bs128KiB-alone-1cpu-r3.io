rchar: 39588572173
wchar: 13663
syscr: 302256
syscw: 5
read_bytes: 12288
write_bytes: 28672
cancelled_write_bytes: 0
