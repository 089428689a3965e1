rchar: 84035439055
wchar: 5985
syscr: 641329
syscw: 3
read_bytes: 0
write_bytes: 53248
cancelled_write_bytes: 0
