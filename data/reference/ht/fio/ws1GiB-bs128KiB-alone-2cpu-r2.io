rchar: 75578715277
wchar: 18969
syscr: 576861
syscw: 5
read_bytes: 2097152
write_bytes: 12288
cancelled_write_bytes: 0
