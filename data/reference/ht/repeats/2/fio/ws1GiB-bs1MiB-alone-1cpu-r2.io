rchar: 38283619241
wchar: 13655
syscr: 36730
syscw: 5
read_bytes: 237568
write_bytes: 8192
cancelled_write_bytes: 0
