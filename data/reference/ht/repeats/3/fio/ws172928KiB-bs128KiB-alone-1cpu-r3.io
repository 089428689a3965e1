rchar: 46229203942
wchar: 13661
syscr: 352919
syscw: 5
read_bytes: 4096
write_bytes: 8192
cancelled_write_bytes: 0
