rchar: 41466047445
wchar: 13663
syscr: 316578
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
