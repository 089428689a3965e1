rchar: 22166309333
wchar: 5978
syscr: 169305
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
