rchar: 23737534928
wchar: 5978
syscr: 1449010
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
