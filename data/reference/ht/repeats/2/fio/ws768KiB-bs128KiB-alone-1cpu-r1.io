rchar: 81626991055
wchar: 5980
syscr: 622954
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
