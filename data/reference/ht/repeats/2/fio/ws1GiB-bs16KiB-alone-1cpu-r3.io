rchar: 33371630535
wchar: 13664
syscr: 2037055
syscw: 5
read_bytes: 4096
write_bytes: 8192
cancelled_write_bytes: 0
