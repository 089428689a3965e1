rchar: 75937197012
wchar: 13664
syscr: 579573
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
