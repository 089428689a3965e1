rchar: 16778295759
wchar: 5978
syscr: 4096437
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
