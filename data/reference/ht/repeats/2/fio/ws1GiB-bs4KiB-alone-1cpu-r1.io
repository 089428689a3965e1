rchar: 17031379908
wchar: 13661
syscr: 4158244
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
