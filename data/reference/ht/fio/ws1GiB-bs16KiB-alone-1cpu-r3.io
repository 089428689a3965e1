rchar: 36869041065
wchar: 13664
syscr: 2250521
syscw: 5
read_bytes: 172032
write_bytes: 8192
cancelled_write_bytes: 0
