rchar: 31349517300
wchar: 13664
syscr: 1913636
syscw: 5
read_bytes: 344064
write_bytes: 8192
cancelled_write_bytes: 0
