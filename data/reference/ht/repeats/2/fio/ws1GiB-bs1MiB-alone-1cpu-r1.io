rchar: 26430516202
wchar: 13652
syscr: 25427
syscw: 5
read_bytes: 176128
write_bytes: 8192
cancelled_write_bytes: 0
