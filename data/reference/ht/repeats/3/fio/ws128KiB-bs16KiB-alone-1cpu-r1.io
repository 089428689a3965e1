rchar: 85486045646
wchar: 5985
syscr: 5217840
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
