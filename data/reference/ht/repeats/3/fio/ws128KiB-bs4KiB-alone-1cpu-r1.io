rchar: 34679081421
wchar: 5980
syscr: 8466746
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
