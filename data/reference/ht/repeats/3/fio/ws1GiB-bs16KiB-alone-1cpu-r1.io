rchar: 35585469355
wchar: 13663
syscr: 2172178
syscw: 5
read_bytes: 4096
write_bytes: 16384
cancelled_write_bytes: 0
