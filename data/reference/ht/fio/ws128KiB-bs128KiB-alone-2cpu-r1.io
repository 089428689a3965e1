rchar: 167685893161
wchar: 18987
syscr: 1279563
syscw: 5
read_bytes: 12288
write_bytes: 16384
cancelled_write_bytes: 0
