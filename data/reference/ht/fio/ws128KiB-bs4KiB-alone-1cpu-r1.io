rchar: 27489287123
wchar: 13663
syscr: 6711445
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
