rchar: 27089005514
wchar: 13664
syscr: 1653595
syscw: 5
read_bytes: 380928
write_bytes: 8192
cancelled_write_bytes: 0
