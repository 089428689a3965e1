rchar: 51470117856
wchar: 13664
syscr: 392902
syscw: 5
read_bytes: 65536
write_bytes: 8192
cancelled_write_bytes: 0
